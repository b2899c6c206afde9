# caught by the visible tests
# wrong: the velocity form v = mu*v - lr*g (equal to torch only while lr is constant)
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=False):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    v = -lr * grad if buf is None else momentum * buf - lr * grad
    if nesterov:
        return p + momentum * v - lr * grad, v
    return p + v, v
