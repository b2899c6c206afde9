# correct: out-of-place arithmetic written back with copy_, state replaced (not mutated) at every step
# Exercise 5.6
class MyAdamW(torch.optim.Optimizer):
    """Exercise 5.6: torch.optim.AdamW as an Optimizer subclass (param groups, lazy self.state, state_dict)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure_loss = None
        if closure is not None:
            with torch.enable_grad():
                closure_loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                st = self.state[p]
                t = st.get("t", 0) + 1
                m = st.get("m", torch.zeros_like(p))
                v = st.get("v", torch.zeros_like(p))
                b1, b2 = group["betas"]
                m = b1 * m + (1 - b1) * g
                v = b2 * v + (1 - b2) * g * g
                update = (m / (1 - b1**t)) / ((v / (1 - b2**t)).sqrt() + group["eps"])
                p.copy_(p - group["lr"] * group["weight_decay"] * p - group["lr"] * update)
                self.state[p] = {"t": t, "m": m, "v": v}
        return closure_loss
