# correct: all perturbations at once with an identity matrix, autograd side via backward() on a copy
def numerical_grad(f, x, eps=1e-6):
    """Exercise 2.1: central-difference gradient of the scalar function f at x, in float64, shaped like x."""
    base = x.detach().double().reshape(-1)
    n = base.numel()
    steps = torch.eye(n, dtype=torch.float64) * eps
    out = torch.empty(n, dtype=torch.float64)
    with torch.no_grad():
        for i in range(n):
            plus = (base + steps[i]).reshape(x.shape)
            minus = (base - steps[i]).reshape(x.shape)
            out[i] = (f(plus) - f(minus)) / (2 * eps)
    return out.reshape(x.shape)


def grad_check(f, x, eps=1e-6):
    """Exercise 2.1: max |autograd gradient - numerical_grad| of f at x (float64), as a Python float."""
    leaf = x.detach().clone().double()
    leaf.requires_grad_(True)
    f(leaf).backward()
    numeric = numerical_grad(f, x, eps)
    return float(torch.max(torch.abs(leaf.grad - numeric)))
