# wrong: x.to(torch.float64) is x itself when x is float64, so requires_grad_() switches on the caller's flag
def numerical_grad(f, x, eps=1e-6):
    xc = x.detach().to(torch.float64).clone()
    flat = xc.view(-1)
    grad = torch.empty_like(flat)
    for i in range(flat.numel()):
        old = flat[i].item()
        flat[i] = old + eps
        fp = float(f(xc))
        flat[i] = old - eps
        fm = float(f(xc))
        flat[i] = old
        grad[i] = (fp - fm) / (2 * eps)
    return grad.view(xc.shape)


def grad_check(f, x, eps=1e-6):
    xc = x.to(torch.float64).requires_grad_()
    (analytic,) = torch.autograd.grad(f(xc), xc)
    return (analytic - numerical_grad(f, x, eps)).abs().max().item()
