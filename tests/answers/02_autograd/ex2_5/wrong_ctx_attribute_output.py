# wrong: keeps the output as an attribute of ctx and derives sigmoid from it: a later in-place change to y leaks in
# Exercise 2.5
class StableSoftplus(torch.autograd.Function):
    """Exercise 2.5: softplus(x) = log(1 + exp(x)) without overflow, with a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        y = x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * -torch.expm1(-ctx.y)
