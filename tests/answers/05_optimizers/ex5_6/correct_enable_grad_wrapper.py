# correct: the closure wrapped by torch.enable_grad() used as a decorator, torch-style state names, hyperparameters read per group
import math


class MyAdamW(torch.optim.Optimizer):
    """Exercise 5.6: torch.optim.AdamW as an Optimizer subclass (param groups, lazy self.state, state_dict)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}
        super().__init__(params, defaults=defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = torch.enable_grad()(closure)() if closure is not None else None
        for group in self.param_groups:
            for p in (q for q in group["params"] if q.grad is not None):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                beta1, beta2 = group["betas"]
                state["step"] = t = state["step"] + 1
                p.mul_(1 - group["lr"] * group["weight_decay"])
                state["exp_avg"].lerp_(p.grad, 1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                denom = (state["exp_avg_sq"] / (1 - beta2**t)).sqrt().add_(group["eps"])
                p.addcdiv_(state["exp_avg"], denom, value=-group["lr"] / (1 - beta1**t))
        return loss
