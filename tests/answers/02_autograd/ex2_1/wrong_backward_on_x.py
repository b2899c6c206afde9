# caught by the visible tests
# wrong: grad_check calls backward() on x itself, overwriting the caller's x.grad
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
    x.grad = None
    f(x).backward()
    return (x.grad - numerical_grad(f, x, eps)).abs().max().item()
