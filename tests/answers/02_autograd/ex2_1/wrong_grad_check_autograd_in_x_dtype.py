# wrong: grad_check takes autograd's gradient in x's dtype (float32 rounding for a float32 x), not at x converted to float64
# Exercise 2.1
def numerical_grad(f, x, eps=1e-6):
    """Exercise 2.1: central-difference gradient of the scalar function f at x, in float64, shaped like x."""
    xc = x.detach().to(torch.float64).clone(memory_format=torch.contiguous_format)
    flat = xc.view(-1)
    grad = torch.empty_like(flat)
    with torch.no_grad():
        for i in range(flat.numel()):
            old = flat[i].item()
            flat[i] = old + eps
            f_plus = float(f(xc))
            flat[i] = old - eps
            f_minus = float(f(xc))
            flat[i] = old
            grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad.view(xc.shape)


def grad_check(f, x, eps=1e-6):
    """Exercise 2.1: max |autograd gradient - numerical_grad| of f at x (float64), as a Python float."""
    xc = x.detach().clone().requires_grad_(True)  # x's dtype: float32 stays float32
    (analytic,) = torch.autograd.grad(f(xc), xc)
    return (analytic.double() - numerical_grad(f, x, eps)).abs().max().item()
