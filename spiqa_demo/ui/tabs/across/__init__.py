"""The Across papers tab: the loaded paper's references, the cited papers' library, and the chat over them."""
