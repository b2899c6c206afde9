# correct: torch's own consume_prefix_in_state_dict_if_present, applied to a copy until nothing changes
from collections import OrderedDict

from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    out = OrderedDict(state_dict)
    while any(k.startswith(WRAPPER_PREFIXES) for k in out):
        for prefix in WRAPPER_PREFIXES:
            consume_prefix_in_state_dict_if_present(out, prefix)
    return out
