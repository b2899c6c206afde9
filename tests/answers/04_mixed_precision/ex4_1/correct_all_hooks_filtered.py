# correct: hooks on every module, records only the leaves; torch.amp.autocast spelling, no try/finally
def autocast_dtypes(model, x, device_type, dtype):
    """Exercise 4.1: run model(x) under autocast; return (out, {leaf module name: output dtype})."""
    names = {m: n for n, m in model.named_modules()}
    report = {}

    def hook(module, args, output):
        if len(list(module.children())) == 0:
            report[names[module]] = output.dtype

    handles = [m.register_forward_hook(hook) for m in model.modules()]
    with torch.amp.autocast(device_type, dtype=dtype):
        out = model(x)
    for h in handles:
        h.remove()
    return out, report
