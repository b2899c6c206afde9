# correct: unzip first, torch.full with the dtype of the images, mask from the sizes by broadcasting
# Exercise 11.2
def pad_collate(batch, pad_value=0.0):
    """Exercise 11.2: (images (B, C, H, W) padded bottom/right with pad_value, int64 labels, bool mask (B, H, W))."""
    imgs, ys = zip(*batch)
    sizes = torch.tensor([img.shape[1:] for img in imgs])
    H, W = sizes.max(dim=0).values.tolist()
    out = torch.full((len(imgs), imgs[0].shape[0], H, W), pad_value, dtype=imgs[0].dtype)
    for i, img in enumerate(imgs):
        out[i, :, :img.shape[1], :img.shape[2]].copy_(img)
    rows = torch.arange(H).view(1, H, 1) < sizes[:, 0].view(-1, 1, 1)
    cols = torch.arange(W).view(1, 1, W) < sizes[:, 1].view(-1, 1, 1)
    return out, torch.as_tensor(ys, dtype=torch.long), rows & cols
