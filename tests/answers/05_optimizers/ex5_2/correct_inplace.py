# correct: in-place lerp/addcmul like torch's own loop, bias corrections folded into the step size
def adamw_step(p, grad, state, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    """Exercise 5.2: one torch.optim.AdamW step; returns the new parameter, keeps m, v, t in `state`."""
    b1, b2 = betas
    state.setdefault("step", 0)
    state.setdefault("exp_avg", torch.zeros_like(p))
    state.setdefault("exp_avg_sq", torch.zeros_like(p))
    state["step"] += 1
    t = state["step"]
    new_p = p.clone().mul_(1 - lr * weight_decay)
    state["exp_avg"].lerp_(grad, 1 - b1)
    state["exp_avg_sq"].mul_(b2).addcmul_(grad, grad, value=1 - b2)
    denom = (state["exp_avg_sq"].sqrt() / math.sqrt(1 - b2**t)).add_(eps)
    return new_p.addcdiv_(state["exp_avg"], denom, value=-lr / (1 - b1**t))
