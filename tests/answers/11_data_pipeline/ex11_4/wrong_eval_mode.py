# caught by the visible tests
# wrong: .eval() on the pipeline, which does not switch random transforms off
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    return train_pipeline.eval()
