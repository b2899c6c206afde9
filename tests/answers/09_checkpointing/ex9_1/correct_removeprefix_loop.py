# correct: str.removeprefix in a loop until the key stops changing
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

    return {clean(k): v for k, v in state_dict.items()}
