# correct: a fresh perturbed copy per entry (no in-place writes), the differences collected as Python floats
# Exercise 2.1
def numerical_grad(f, x, eps=1e-6):
    """Exercise 2.1: central-difference gradient of the scalar function f at x, in float64, shaped like x."""
    base = x.detach().double()
    diffs = []
    with torch.no_grad():
        for i in range(base.numel()):
            step = torch.zeros(base.numel(), dtype=torch.float64).reshape(base.shape)
            step.view(-1)[i] = eps
            diffs.append((f(base + step).item() - f(base - step).item()) / (2 * eps))
    return torch.tensor(diffs, dtype=torch.float64).reshape(base.shape)


def grad_check(f, x, eps=1e-6):
    """Exercise 2.1: max |autograd gradient - numerical_grad| of f at x (float64), as a Python float."""
    leaf = torch.tensor(x.detach().tolist(), dtype=torch.float64, requires_grad=True)
    f(leaf).backward()
    return float(torch.max(torch.abs(leaf.grad - numerical_grad(f, x, eps=eps))))
