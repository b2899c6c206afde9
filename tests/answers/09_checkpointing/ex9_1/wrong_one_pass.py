# caught by the visible tests
# wrong: removes each prefix once, in a fixed order, so '_orig_mod.module.' keeps 'module.'
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    return {k.removeprefix("module.").removeprefix("_orig_mod."): v for k, v in state_dict.items()}
