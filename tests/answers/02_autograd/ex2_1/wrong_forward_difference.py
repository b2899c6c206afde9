# caught by the visible tests
# wrong: forward difference (f(x+eps) - f(x)) / eps, error O(eps) instead of O(eps^2)
def numerical_grad(f, x, eps=1e-6):
    xc = x.detach().to(torch.float64).clone()
    flat = xc.view(-1)
    grad = torch.empty_like(flat)
    f0 = float(f(xc))
    for i in range(flat.numel()):
        old = flat[i].item()
        flat[i] = old + eps
        grad[i] = (float(f(xc)) - f0) / eps
        flat[i] = old
    return grad.view(xc.shape)


def grad_check(f, x, eps=1e-6):
    xc = x.detach().to(torch.float64).clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(xc), xc)
    return (analytic - numerical_grad(f, x, eps)).abs().max().item()
