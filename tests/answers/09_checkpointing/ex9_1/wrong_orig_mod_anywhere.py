# wrong: removes '_orig_mod.' anywhere in a key, so a compiled block inside the model loses part of its name
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    out = {}
    for key, value in state_dict.items():
        key = key.replace("_orig_mod.", "")
        while key.startswith("module."):
            key = key[len("module."):]
        out[key] = value
    return out
