# wrong: keeps a copy of x as an attribute of ctx instead of ctx.save_for_backward (gradients right, rule broken)
# Exercise 2.5
class StableSoftplus(torch.autograd.Function):
    """Exercise 2.5: softplus(x) = log(1 + exp(x)) without overflow, with a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x.detach().clone()
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * torch.sigmoid(ctx.x)
