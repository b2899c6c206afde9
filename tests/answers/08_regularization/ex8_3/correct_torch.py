# correct: calls torch's own implementation with the variant's norm_type
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global NORM_TYPE-norm is at most max_norm."""
    return torch.nn.utils.clip_grad_norm_(parameters, max_norm, norm_type=NORM_TYPE)
