import Yams

extension ConfigWalker {
    /// What `text`, an item of `name` written at `node`, names; nil (reported) for a URL whose
    /// text cannot be one kiosk opens (`SourceURLCheck`).
    func itemSource(_ text: String, at node: Node?, in name: String, baseDirectory: String,
                    fileSystem: any PlaylistFileSystem) -> ItemSource? {
        let source = ItemSource.classify(text, baseDirectory: baseDirectory, fileSystem: fileSystem)
        guard case .url(let url) = source, let problem = SourceURLCheck.problem(in: url) else { return source }
        report(node, "\(name) is the URL '\(NetworkURL.masked(url))', which kiosk cannot open: \(problem)")
        return nil
    }
}
