# caught by the visible tests
# wrong: hard-codes device_type="cuda", which does nothing to CPU tensors
def autocast_dtypes(model, x, device_type, dtype):
    """Exercise 4.1: run model(x) under autocast; return (out, {leaf module name: output dtype or None})."""
    report = {}
    handles = []

    def make_hook(name):
        def hook(module, args, output):
            report[name] = output.dtype if isinstance(output, torch.Tensor) else None
        return hook

    try:
        for name, module in model.named_modules():
            if next(module.children(), None) is None:
                handles.append(module.register_forward_hook(make_hook(name)))
        with torch.autocast(device_type="cuda", dtype=dtype):
            out = model(x)
    finally:
        for h in handles:
            h.remove()
    return out, report
