# caught by the visible tests
# wrong: nesterov flag ignored (always heavy-ball momentum)
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=False):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    buf = grad.clone() if buf is None else momentum * buf + grad
    return p - lr * buf, buf
