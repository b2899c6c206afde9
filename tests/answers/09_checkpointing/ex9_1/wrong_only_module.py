# caught by the visible tests
# wrong: handles DDP's 'module.' but forgets torch.compile's '_orig_mod.'
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_prefixes(state_dict):
    """Exercise 9.1: a new dict whose keys lose every leading 'module.' and '_orig_mod.'."""
    return {k[len("module."):] if k.startswith("module.") else k: v for k, v in state_dict.items()}
