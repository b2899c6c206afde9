# correct: perturbations built from one-hot rows of an identity, autograd side through torch.autograd.functional.jacobian
def numerical_grad(f, x, eps=1e-6):
    """Exercise 2.1: central-difference gradient of the scalar function f at x, in float64, shaped like x."""
    x64 = x.detach().double()
    basis = torch.eye(x64.numel(), dtype=torch.float64)
    diffs = [(f(x64 + eps * e.view_as(x64)) - f(x64 - eps * e.view_as(x64))) / (2 * eps) for e in basis]
    return torch.stack([d.detach().reshape(()) for d in diffs]).reshape(x64.shape) if diffs else torch.zeros_like(x64)


def grad_check(f, x, eps=1e-6):
    """Exercise 2.1: max |autograd gradient - numerical_grad| of f at x (float64), as a Python float."""
    analytic = torch.autograd.functional.jacobian(f, x.detach().double())
    return float((analytic - numerical_grad(f, x, eps)).abs().amax())
