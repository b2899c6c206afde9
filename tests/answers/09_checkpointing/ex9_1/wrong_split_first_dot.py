# caught by the visible tests
# wrong: drops everything up to the first dot when a key has a wrapper prefix, only once
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    return {(k.split(".", 1)[1] if k.startswith(WRAPPER_PREFIXES) else k): v for k, v in state_dict.items()}
