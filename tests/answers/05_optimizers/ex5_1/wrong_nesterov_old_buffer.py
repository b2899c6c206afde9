# caught by the visible tests
# wrong: Nesterov look-ahead uses the buffer from before this step's update
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=False):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    old = torch.zeros_like(grad) if buf is None else buf
    new = grad.clone() if buf is None else momentum * buf + grad
    step = grad + momentum * old if nesterov else new
    return p - lr * step, new
