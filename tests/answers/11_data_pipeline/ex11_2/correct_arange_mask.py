# correct: sizes as tensors, the mask by broadcasting aranges against them, images copied with torch.full
# Exercise 11.2
def pad_collate(batch, pad_value=0.0):
    """Exercise 11.2: (images (B, C, H, W) padded bottom/right with pad_value, int64 labels, bool mask (B, H, W))."""
    imgs, labels = zip(*batch)
    hs = torch.tensor([im.shape[-2] for im in imgs])
    ws = torch.tensor([im.shape[-1] for im in imgs])
    H, W = int(hs.max()), int(ws.max())
    out = torch.full((len(imgs), imgs[0].shape[0], H, W), pad_value, dtype=imgs[0].dtype)
    for i, im in enumerate(imgs):
        out[i, :, :im.shape[-2], :im.shape[-1]].copy_(im)
    mask = (torch.arange(H)[None, :, None] < hs[:, None, None]) & (torch.arange(W)[None, None, :] < ws[:, None, None])
    return out, torch.as_tensor(labels, dtype=torch.long), mask
