# caught by the visible tests
# wrong: no bias correction of m and v
def adamw_step(p, grad, state, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    """Exercise 5.2: one torch.optim.AdamW step; returns the new parameter, keeps m, v, t in `state`."""
    b1, b2 = betas
    if not state:
        state.update(m=torch.zeros_like(p), v=torch.zeros_like(p))
    p = p * (1 - lr * weight_decay)
    state["m"] = b1 * state["m"] + (1 - b1) * grad
    state["v"] = b2 * state["v"] + (1 - b2) * grad * grad
    return p - lr * state["m"] / (state["v"].sqrt() + eps)
