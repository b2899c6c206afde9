# caught by the visible tests
# wrong: keeps x as an attribute of ctx: no version check, backward reads x after it was changed
# Exercise 2.5
class StableSoftplus(torch.autograd.Function):
    """Exercise 2.5: softplus(x) = log(1 + exp(x)) without overflow, with a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * torch.sigmoid(ctx.x)
