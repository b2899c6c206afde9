# wrong: right keys, but every tensor is cloned (the text asks for the same tensor objects)
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    out = {}
    for key, value in state_dict.items():
        stripped = True
        while stripped:
            stripped = False
            for prefix in WRAPPER_PREFIXES:
                if key.startswith(prefix):
                    key = key[len(prefix):]
                    stripped = True
        out[key] = value.clone()
    return out
