# correct: one global forward hook (for every module), filtered to the model's leaves, removed in finally
from torch.nn.modules.module import register_module_forward_hook


def autocast_dtypes(model, x, device_type, dtype):
    """Exercise 4.1: run model(x) under autocast; return (out, {leaf module name: output dtype or None})."""
    leaves = {id(m): n for n, m in model.named_modules() if not any(True for _ in m.children())}
    report = {}

    def hook(module, args, output):
        if id(module) in leaves:
            report[leaves[id(module)]] = output.dtype if torch.is_tensor(output) else None

    handle = register_module_forward_hook(hook)
    try:
        with torch.autocast(device_type, dtype):
            out = model(x)
    finally:
        handle.remove()
    return out, report
