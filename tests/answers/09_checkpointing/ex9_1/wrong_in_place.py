# caught by the visible tests
# wrong: renames the keys of the caller's dict in place (and returns it)
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    while any(k.startswith(WRAPPER_PREFIXES) for k in state_dict):
        for prefix in WRAPPER_PREFIXES:
            consume_prefix_in_state_dict_if_present(state_dict, prefix)
    return state_dict
