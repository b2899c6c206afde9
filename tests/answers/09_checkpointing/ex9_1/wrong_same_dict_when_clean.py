# wrong: hands the argument itself back when no key has a prefix (the text asks for a new dict)
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    def clean(key):
        previous = None
        while key != previous:
            previous = key
            for prefix in WRAPPER_PREFIXES:
                key = key.removeprefix(prefix)
        return key

    if all(clean(k) == k for k in state_dict):
        return state_dict
    return {clean(k): v for k, v in state_dict.items()}
