# correct: perturbs a fresh copy for each evaluation, builds the result with a list
def numerical_grad(f, x, eps=1e-6):
    """Exercise 2.1: central-difference gradient of the scalar function f at x, in float64, shaped like x."""
    x64 = x.detach().to(torch.float64)
    values = []
    for i in range(x64.numel()):
        xp = x64.clone().flatten()
        xm = x64.clone().flatten()
        xp[i] += eps
        xm[i] -= eps
        fp = f(xp.view_as(x64)).item()
        fm = f(xm.view_as(x64)).item()
        values.append((fp - fm) / (2 * eps))
    return torch.tensor(values, dtype=torch.float64).reshape(x64.shape)


def grad_check(f, x, eps=1e-6):
    """Exercise 2.1: max |autograd gradient - numerical_grad| of f at x (float64), as a Python float."""
    xc = x.detach().to(torch.float64).requires_grad_()
    grad = torch.autograd.grad(f(xc), xc)[0]
    return (grad - numerical_grad(f, x, eps)).abs().max().item()
