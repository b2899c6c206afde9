# wrong: updates the caller's momentum buffer in place instead of returning a new one
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=False):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    if buf is None:
        buf = grad.clone()
    else:
        buf.mul_(momentum).add_(grad)
    direction = grad + momentum * buf if nesterov else buf
    return p - lr * direction, buf
