# correct: torch's own single-tensor loop: a 0-d tensor step, lerp_/addcmul_/addcdiv_, bias corrections folded in
# Exercise 5.6
class MyAdamW(torch.optim.Optimizer):
    """Exercise 5.6: torch.optim.AdamW as an Optimizer subclass (param groups, lazy self.state, state_dict)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            params = [p for p in group["params"] if p.grad is not None]
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.0)
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["step"] += 1
                step = state["step"].item()
                p.mul_(1 - group["lr"] * group["weight_decay"])
                state["exp_avg"].lerp_(p.grad, 1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                step_size = group["lr"] / (1 - beta1**step)
                denom = (state["exp_avg_sq"].sqrt() / math.sqrt(1 - beta2**step)).add_(group["eps"])
                p.addcdiv_(state["exp_avg"], denom, value=-step_size)
        return loss
