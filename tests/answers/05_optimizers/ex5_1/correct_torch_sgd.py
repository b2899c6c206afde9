# correct: delegates to torch.optim.SGD itself, carrying the buffer through its state
def sgd_momentum_step(p, grad, buf, lr, momentum, nesterov=False):
    """Exercise 5.1: one torch.optim.SGD step; returns (new_p, new_buf). buf is None at the first step."""
    q = torch.nn.Parameter(p.detach().clone())
    opt = torch.optim.SGD([q], lr=lr, momentum=momentum, nesterov=nesterov)
    if buf is not None:
        opt.state[q]["momentum_buffer"] = buf.clone()
    q.grad = grad.detach().clone()
    opt.step()
    return q.detach(), opt.state[q]["momentum_buffer"].clone()
