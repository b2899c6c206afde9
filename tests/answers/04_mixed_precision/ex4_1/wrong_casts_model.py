# wrong: casts the model and the input to the low dtype instead of using autocast
def autocast_dtypes(model, x, device_type, dtype):
    """Exercise 4.1: run model(x) under autocast; return (out, {leaf module name: output dtype})."""
    report, handles = {}, []
    for name, module in model.named_modules():
        if not list(module.children()):
            handles.append(module.register_forward_hook(
                lambda m, a, o, name=name: report.__setitem__(name, o.dtype)))
    model.to(dtype)
    if x.is_floating_point():
        x = x.to(dtype)
    out = model(x)
    for h in handles:
        h.remove()
    return out, report
