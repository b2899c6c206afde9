# wrong: records the dtype of each module's input, not of its output
def autocast_dtypes(model, x, device_type, dtype):
    """Exercise 4.1: run model(x) under autocast; return (out, {leaf module name: output dtype or None})."""
    report, handles = {}, []

    def pre_hook(name):
        def hook(module, args):
            report[name] = args[0].dtype if args and isinstance(args[0], torch.Tensor) else None
        return hook

    try:
        for name, module in model.named_modules():
            if next(module.children(), None) is None:
                handles.append(module.register_forward_pre_hook(pre_hook(name)))
        with torch.autocast(device_type=device_type, dtype=dtype):
            out = model(x)
    finally:
        for h in handles:
            h.remove()
    return out, report
