# caught by the visible tests
# wrong: str.lstrip strips a set of characters, not a prefix ("out.bias" -> "t.bias")
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    return {k.lstrip("module.").lstrip("_orig_mod."): v for k, v in state_dict.items()}
