# caught by the visible tests
# wrong: differences in the dtype of x (float32 rounding swamps the derivative)
def numerical_grad(f, x, eps=1e-6):
    xc = x.detach().clone()
    flat = xc.view(-1)
    grad = torch.empty_like(flat)
    for i in range(flat.numel()):
        old = flat[i].item()
        flat[i] = old + eps
        fp = f(xc)
        flat[i] = old - eps
        fm = f(xc)
        flat[i] = old
        grad[i] = (fp - fm) / (2 * eps)
    return grad.view(xc.shape)


def grad_check(f, x, eps=1e-6):
    xc = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(xc), xc)
    return (analytic - numerical_grad(f, x, eps)).abs().max().item()
