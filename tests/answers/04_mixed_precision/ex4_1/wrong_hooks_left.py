# wrong: never removes the hooks
def autocast_dtypes(model, x, device_type, dtype):
    """Exercise 4.1: run model(x) under autocast; return (out, {leaf module name: output dtype})."""
    report = {}
    for name, module in model.named_modules():
        if not list(module.children()):
            module.register_forward_hook(lambda m, a, o, name=name: report.__setitem__(name, o.dtype))
    with torch.autocast(device_type=device_type, dtype=dtype):
        out = model(x)
    return out, report
