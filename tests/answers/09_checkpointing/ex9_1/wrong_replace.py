# caught by the visible tests
# wrong: str.replace also removes 'module.' from the middle of a key (a submodule named module)
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    return {k.replace("module.", "").replace("_orig_mod.", ""): v for k, v in state_dict.items()}
