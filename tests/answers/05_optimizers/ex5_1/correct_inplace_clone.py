# correct: momentum buffer updated with in-place ops on a copy, Nesterov as a look-ahead on the new buffer
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=False):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    new_buf = grad.detach().clone() if buf is None else buf.clone().mul_(momentum).add_(grad)
    step = grad.add(new_buf, alpha=momentum) if nesterov else new_buf
    return p.clone().add_(step, alpha=-lr), new_buf
