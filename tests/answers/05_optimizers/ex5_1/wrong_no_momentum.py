# caught by the visible tests
# wrong: plain SGD, momentum ignored
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=False):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    return p - lr * grad, grad
