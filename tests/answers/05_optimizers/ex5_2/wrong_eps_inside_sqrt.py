# caught by the visible tests
# wrong: eps inside the square root, sqrt(v_hat + eps)
def adamw_step(p, grad, state, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    """Exercise 5.2: one torch.optim.AdamW step; returns the new parameter, keeps m, v, t in `state`."""
    b1, b2 = betas
    if not state:
        state.update(t=0, m=torch.zeros_like(p), v=torch.zeros_like(p))
    state["t"] += 1
    p = p * (1 - lr * weight_decay)
    state["m"] = b1 * state["m"] + (1 - b1) * grad
    state["v"] = b2 * state["v"] + (1 - b2) * grad * grad
    m_hat = state["m"] / (1 - b1 ** state["t"])
    v_hat = state["v"] / (1 - b2 ** state["t"])
    return p - lr * m_hat / (v_hat + eps).sqrt()
