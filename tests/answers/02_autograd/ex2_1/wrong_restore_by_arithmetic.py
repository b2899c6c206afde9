# wrong: a detached view of x (no copy for a float64 x), perturbed in place and put back by adding and subtracting eps: rounding leaves x changed
# Exercise 2.1
def numerical_grad(f, x, eps=1e-6):
    """Exercise 2.1: central-difference gradient of the scalar function f at x, in float64, shaped like x."""
    xd = x.detach().to(torch.float64)
    flat = xd.reshape(-1)
    out = torch.zeros(flat.numel(), dtype=torch.float64)
    with torch.no_grad():
        for i in range(flat.numel()):
            flat[i] += eps
            up = float(f(xd))
            flat[i] -= 2 * eps
            down = float(f(xd))
            flat[i] += eps
            out[i] = (up - down) / (2 * eps)
    return out.reshape(xd.shape)


def grad_check(f, x, eps=1e-6):
    """Exercise 2.1: max |autograd gradient - numerical_grad| of f at x (float64), as a Python float."""
    xc = x.detach().to(torch.float64).clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(xc), xc)
    return (analytic - numerical_grad(f, x, eps)).abs().max().item()
