export const View = () => <div>demo</div>;
