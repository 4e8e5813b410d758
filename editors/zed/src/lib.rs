// Starts `render lsp` (found on PATH) for Zed: the server does the rest.
use zed_extension_api as zed;

struct Promptsmith;

impl zed::Extension for Promptsmith {
    fn new() -> Self {
        Promptsmith
    }

    fn language_server_command(
        &mut self,
        _id: &zed::LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<zed::Command> {
        let render = worktree
            .which("render")
            .ok_or("render is not on PATH: go install ./cmd/render")?;
        Ok(zed::Command {
            command: render,
            args: vec!["lsp".into()],
            env: Default::default(),
        })
    }
}

zed::register_extension!(Promptsmith);
