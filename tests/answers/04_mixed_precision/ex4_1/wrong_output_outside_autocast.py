# wrong: the report comes from an autocast pass, but the returned output from a second, float32 pass
def autocast_dtypes(model, x, device_type, dtype):
    """Exercise 4.1: run model(x) under autocast; return (out, {leaf module name: output dtype})."""
    report, handles = {}, []
    for name, module in model.named_modules():
        if not list(module.children()):
            handles.append(module.register_forward_hook(
                lambda m, a, o, name=name: report.__setitem__(name, o.dtype)))
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for h in handles:
            h.remove()
    return model(x), report
