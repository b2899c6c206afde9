# correct: one anchored regular expression for any chain of the two prefixes
import re

WRAPPER_PREFIXES = ("module.", "_orig_mod.")
_LEADING = re.compile(r"^(?:module\.|_orig_mod\.)+")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    return {_LEADING.sub("", k): v for k, v in state_dict.items()}
