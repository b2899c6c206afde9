# caught by the visible tests
# wrong: log(1 + exp(x)) as written: exp overflows to inf at x = 100 in float32
# Exercise 2.5
class StableSoftplus(torch.autograd.Function):
    """Exercise 2.5: softplus(x) = log(1 + exp(x)) without overflow, with a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log(1 + torch.exp(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)
