# wrong: Nesterov momentum unless told otherwise (the signature says nesterov=False)
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=True):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    if buf is None:
        buf = grad.clone()
    else:
        buf = momentum * buf + grad
    direction = grad + momentum * buf if nesterov else buf
    return p - lr * direction, buf
