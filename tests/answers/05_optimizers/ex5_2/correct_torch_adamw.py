# correct: drives torch.optim.AdamW itself, keeping the optimizer's state in `state`
def adamw_step(p, grad, state, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    """Exercise 5.2: one torch.optim.AdamW step; returns the new parameter, keeps m, v, t in `state`."""
    q = torch.nn.Parameter(p.detach().clone())
    opt = torch.optim.AdamW([q], lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=False)
    if state:
        opt.state[q] = {k: v.clone() for k, v in state.items()}
    q.grad = grad.detach().clone()
    opt.step()
    state.clear()
    state.update({k: v.clone() for k, v in opt.state[q].items()})
    return q.detach()
