# caught by the visible tests
# wrong: derivative with the wrong sign inside, sigmoid(-x)
# Exercise 2.5
class StableSoftplus(torch.autograd.Function):
    """Exercise 2.5: softplus(x) = log(1 + exp(x)) without overflow, with a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(-x)
