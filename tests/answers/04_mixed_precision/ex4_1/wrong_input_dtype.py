# wrong: records the dtype of each module's input, not of its output
def autocast_dtypes(model, x, device_type, dtype):
    """Exercise 4.1: run model(x) under autocast; return (out, {leaf module name: output dtype})."""
    report, handles = {}, []
    for name, module in model.named_modules():
        if not list(module.children()):
            handles.append(module.register_forward_pre_hook(
                lambda m, args, name=name: report.__setitem__(name, args[0].dtype)))
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            out = model(x)
    finally:
        for h in handles:
            h.remove()
    return out, report
