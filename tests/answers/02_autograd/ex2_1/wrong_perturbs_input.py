# caught by the visible tests
# wrong: perturbs x itself in place (refused for a leaf that requires grad)
def numerical_grad(f, x, eps=1e-6):
    flat = x.view(-1)
    grad = torch.empty(flat.numel(), dtype=torch.float64)
    for i in range(flat.numel()):
        old = flat[i].item()
        flat[i] = old + eps
        fp = float(f(x.double()))
        flat[i] = old - eps
        fm = float(f(x.double()))
        flat[i] = old
        grad[i] = (fp - fm) / (2 * eps)
    return grad.view(x.shape)


def grad_check(f, x, eps=1e-6):
    xc = x.detach().to(torch.float64).clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(xc), xc)
    return (analytic - numerical_grad(f, x, eps)).abs().max().item()
