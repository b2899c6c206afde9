# wrong: never puts the perturbed entry back, so later entries are differenced at a shifted point
def numerical_grad(f, x, eps=1e-6):
    xc = x.detach().to(torch.float64).clone()
    flat = xc.view(-1)
    grad = torch.empty_like(flat)
    for i in range(flat.numel()):
        flat[i] += eps
        fp = float(f(xc))
        flat[i] -= 2 * eps
        fm = float(f(xc))
        grad[i] = (fp - fm) / (2 * eps)
    return grad.view(xc.shape)


def grad_check(f, x, eps=1e-6):
    xc = x.detach().to(torch.float64).clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(xc), xc)
    return (analytic - numerical_grad(f, x, eps)).abs().max().item()
