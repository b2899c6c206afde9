# caught by the visible tests
# wrong: Adam-style averaged momentum buf = mu*buf + (1-mu)*g
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=False):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    buf = grad.clone() if buf is None else momentum * buf + (1 - momentum) * grad
    step = grad + momentum * buf if nesterov else buf
    return p - lr * step, buf
