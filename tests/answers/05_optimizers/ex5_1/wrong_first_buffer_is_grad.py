# wrong: the first buffer is the caller's gradient tensor itself, not a copy of it
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=False):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    buf = grad if buf is None else momentum * buf + grad
    direction = grad + momentum * buf if nesterov else buf
    return p - lr * direction, buf
